#!/usr/bin/env node
// `npx autopilot`: runs the TypeScript CLI through tsx's loader, in this process, so it works
// right after `npm ci` with no build step (tsx is a dev dependency of this repository).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
