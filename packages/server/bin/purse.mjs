#!/usr/bin/env node
// The operator command. tsx is registered first so the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
