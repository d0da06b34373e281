import type { Scenario } from './figures.ts';

/** The scenarios, in the order they run. Each lives in its own file under test/faults/. */
export const SCENARIOS: Scenario[] = [];
