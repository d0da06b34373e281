import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type RawBuilder } from 'kysely';

/** Compiles SQL without a database: the dialect's compiler behind a driver that never connects. */
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * The text of a statement built from fragments, and its parameters, exactly as the driver
 * would send them: for the committed `.sql` files (db/statements/), the bench's pgbench script
 * and tests that read a statement.
 */
export function compileStatement(statement: RawBuilder<unknown>): { sql: string; parameters: readonly unknown[] } {
  return statement.compile(compiler);
}
