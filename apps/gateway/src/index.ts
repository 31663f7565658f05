export { createGatewayApp, isGatewayPath } from './app.ts';
export { createHttpServer, type NodeHandler } from './http-server.ts';
export * from './middleware/index.ts';
