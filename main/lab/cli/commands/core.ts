import type { CliCommand } from '../command';

export const coreCommands: CliCommand[] = [];
