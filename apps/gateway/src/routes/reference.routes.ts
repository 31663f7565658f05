import type { OpenAPIHono } from '@hono/zod-openapi';
import { html, raw } from 'hono/html';
import type { GatewayEnv } from '../router.ts';
import { SOFTWARE_VERSION } from '@swarm/domain';

export const OPENAPI_PATH = '/api/swarm/openapi.json';
export const REFERENCE_PATH = '/api/swarm/reference';

type Operation = {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
  security?: unknown[];
};

/**
 * The OpenAPI 3.1 document of everything the gateway serves, generated from the same zod
 * schemas that validate requests, and a plain reference page rendered from it on the server
 * (no scripts, no CDN: nodes often run offline or behind strict policies).
 */
export function mountReference(app: OpenAPIHono<GatewayEnv>) {
  const document = () =>
    app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Swarm node gateway',
        version: SOFTWARE_VERSION,
        description:
          'The node-to-node interface of a Swarm node. Profile and rules: docs/protocol.md. Errors are { error, code, details? }.',
      },
    });

  app.get(OPENAPI_PATH, (c) => c.json(document()));

  app.get(REFERENCE_PATH, (c) => {
    const doc = document();
    const sections = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(([method, op]) => {
        const params = (op.parameters ?? []).map(
          (p) => html`<li><code>${p.name}</code> (${p.in}${p.required ? ', required' : ''})</li>`,
        );
        const body = op.requestBody?.content?.['application/json']?.schema;
        const responses = Object.entries(op.responses ?? {}).map(
          ([status, r]) => html`<li><code>${status}</code> ${r.description ?? ''}</li>`,
        );
        return html`<section>
          <h2><span class="method">${method.toUpperCase()}</span> <code>${path}</code></h2>
          <p>${op.summary ?? ''}</p>
          ${
            params.length
              ? html`<h3>Parameters</h3>
                  <ul>
                    ${params}
                  </ul>`
              : ''
          }
          ${
            body
              ? html`<details>
                  <summary>Request body schema</summary>
                  <pre>${JSON.stringify(body, null, 2)}</pre>
                </details>`
              : ''
          }
          <h3>Responses</h3>
          <ul>
            ${responses}
          </ul>
        </section>`;
      }),
    );
    return c.html(
      html`<!doctype html>
        <html lang="en">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>${doc.info.title} ${doc.info.version}</title>
            <style>
              ${raw(STYLE)}
            </style>
          </head>
          <body>
            <main>
              <h1>${doc.info.title} <small>${doc.info.version}</small></h1>
              <p>${doc.info.description ?? ''}</p>
              <p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a></p>
              ${sections}
            </main>
          </body>
        </html>`,
    );
  });
}

const STYLE = `
body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 0; color: #16161d; background: #f7f7fb; }
main { max-width: 52rem; margin: 0 auto; padding: 1.5rem; }
section { background: #fff; border: 1px solid #d9d9e3; border-radius: .6rem; padding: .25rem 1rem 1rem; margin: 1rem 0; }
h2 { font-size: 1.05rem; } h3 { font-size: .95rem; margin-bottom: .25rem; }
.method { display: inline-block; min-width: 3.5rem; color: #4338ca; }
pre { overflow: auto; background: #f1f1f6; padding: .75rem; font-size: .8rem; }
a { color: #4338ca; } :focus-visible { outline: 3px solid #f59e0b; }
`;
