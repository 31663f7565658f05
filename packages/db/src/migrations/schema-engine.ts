import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type * as SchemaEngineModule from '@prisma/schema-engine-wasm/schema_engine_bg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { freshMemoryPglite } from '../pglite.ts';
import type { MigrationsFolder } from './migration-files.ts';

// Prisma's schema engine (migrate diff/apply) as WebAssembly, because its native binary can't be
// downloaded here (docs/database.md). The package's entry imports a `.wasm` file directly, which
// plain Node can't do, so we instantiate it by hand with the wasm-bindgen glue as its imports.

type SchemaEngineModuleType = typeof SchemaEngineModule;
export type SchemaEngine = SchemaEngineModule.SchemaEngine;
export type MigrationList = SchemaEngineModule.MigrationList;

let loading: Promise<SchemaEngineModuleType> | undefined;

export function loadSchemaEngineModule(): Promise<SchemaEngineModuleType> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = (await import(pathToFileURL(gluePath).href)) as SchemaEngineModuleType & {
      __wbg_set_wasm(exports: WebAssembly.Exports): void;
    };
    const bytes = await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, {
      './schema_engine_bg.js': glue as unknown as WebAssembly.ModuleImports,
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return loading;
}

export const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * Runs `fn` with a schema engine whose databases are throw-away in-memory PGlite clusters (the
 * main one and every shadow database it asks for), all closed afterwards. Diffing needs nothing
 * else: the engine replays the migrations on a shadow database and compares it with the schema.
 */
export async function withScratchSchemaEngine<T>(
  fn: (engine: SchemaEngine) => Promise<T>,
  onLog: (line: string) => void = () => {},
): Promise<T> {
  const opened: PGlite[] = [];
  const open = async (): Promise<PGlite> => {
    const pglite = await freshMemoryPglite();
    opened.push(pglite);
    return pglite;
  };
  // The engine opens its main database up front but only reads the server version from it, so
  // the first shadow database reuses that cluster: one PGlite start (~0.7 s) instead of two.
  let main: PGlite | undefined;
  let mainLent = false;
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: 'postgres',
    adapterName: 'swarm-scratch-pglite',
    connect: async (): Promise<SqlDriverAdapter> => {
      main ??= await open();
      return new PrismaPGlite(main).connect();
    },
    connectToShadowDb: async (): Promise<SqlDriverAdapter> => {
      const shadow = main && !mainLent ? main : await open();
      if (shadow === main) mainLent = true;
      return new PrismaPGlite(shadow).connect();
    },
  };
  try {
    return await withSchemaEngine(factory, fn, onLog);
  } finally {
    await Promise.all(opened.map((p) => p.close().catch(() => {})));
  }
}

/** Runs `fn` with a schema engine over the databases of `factory` (freed afterwards). */
export async function withSchemaEngine<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  fn: (engine: SchemaEngine) => Promise<T>,
  onLog: (line: string) => void = () => {},
): Promise<T> {
  const mod = await loadSchemaEngineModule();
  const engine = await mod.SchemaEngine.new(
    { datamodels: undefined },
    (line: string) => onLog(line),
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    return await fn(engine);
  } finally {
    engine.free();
  }
}

/** The engine's view of a migrations folder. */
export function toMigrationList(folder: MigrationsFolder): MigrationList {
  return {
    baseDir: folder.dir,
    lockfile: { path: 'migration_lock.toml', content: folder.lockfile },
    shadowDbInitScript: '',
    migrationDirectories: folder.migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.sql } },
    })),
  };
}
