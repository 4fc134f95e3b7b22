// The registry of `sailor` commands, one module per area. Add an area's list here.
import type { CliCommand } from '../command';
import { coreCommands } from './core';

export const allCommands: CliCommand[] = [...coreCommands];
