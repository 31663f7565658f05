import { z } from 'zod';

// Zod compiles object parsers with `new Function` where eval is allowed, and probes for it
// with `Function('')` on first use. The Content-Security-Policy forbids eval (no
// 'unsafe-eval': docs/security.md, "Headers"), and the browser reports even the caught probe as
// a violation: parse without compiling. Runs before any page code.
z.config({ jitless: true });
