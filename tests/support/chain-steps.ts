// Hand-made agent turns for the chain tests (the failure classes, the turn rewards): a two-hop question whose
// bridge is Enid, the search and visit that find it, and the search that takes the hop.
import type { AgentStep } from '../../main/lab/agent/react';

export const search = (q: string, obs: string): AgentStep => ({ think: '', action: { name: 'search', arguments: { query: [q] } }, observation: obs });
export const visit = (url: string, obs: string): AgentStep => ({ think: '', action: { name: 'visit', arguments: { url: [url], goal: 'g' } }, observation: obs });
export const answer = (a: string): AgentStep => ({ think: '', action: { name: 'answer', arguments: { answer: a } } });

export const s1 = search('Vance Air Force Base', '1. [Vance Air Force Base](sim://Vance_Air_Force_Base)\nVance Air Force Base is an airport.');
export const s2 = visit('sim://Vance_Air_Force_Base', 'Evidence in page:\nVance Air Force Base serves city Enid.');
export const hop = search('Enid', '1. [Enid](sim://Enid)\nEnid is located in United States.');
