export * from './account.service.ts';
export * from './auth-services.ts';
export * from './client-apps.ts';
export * from './password.ts';
export * from './session.service.ts';
export * from './types.ts';
export { admitSignUp, SIGNUP_REASON_MAX, type Admission } from './registrations.ts';
