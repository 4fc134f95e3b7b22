// The registry of `sailor` commands, one module per area. Add an area's list here.
import type { CliCommand } from '../command';
import { agentCommands } from './agent';
import { coreCommands } from './core';
import { exportCommands } from './export';
import { graphCommands } from './graph';
import { importCommands } from './import';
import { kgCommands } from './kg';
import { qaCommands } from './qa';
import { synthCommands } from './synth';
import { trainCommands } from './train';
import { webCommands } from './web';

export const allCommands: CliCommand[] = [
  ...coreCommands, ...graphCommands, ...kgCommands, ...agentCommands, ...synthCommands, ...trainCommands, ...webCommands, ...exportCommands,
  ...importCommands, ...qaCommands,
];
