/**
 * English issue messages for schemas written with `zod/mini` (import this module for its
 * effect before building any). Classic `zod` sets them when it loads, but it costs ~450 KB
 * and ~40 ms at every cold start, so the schemas the handlers build at init use `zod/mini`,
 * which ships no messages of its own: without this, "Unrecognized key" becomes "Invalid input".
 * The setting is global to zod and the same one classic installs, so both can coexist.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());
