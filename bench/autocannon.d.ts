// autocannon ships no types (and @types/autocannon describes its 7.x): the one call
// bench/lib/load.ts makes, with the result typed by the caller (AutocannonResult there).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export default function autocannon<Result>(options: object, done: (error: Error | null, result: Result) => void): EventEmitter;
}
