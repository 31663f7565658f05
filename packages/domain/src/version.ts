/** Reported as softwareVersion in node info; bump with releases. */
export const SOFTWARE_VERSION = '0.1.0';
