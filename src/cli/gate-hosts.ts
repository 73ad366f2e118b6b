/**
 * The agent hosts the stop gate speaks to, one adapter per host in src/app/gate/hosts/ (this
 * file keeps the command line's imports where they were).
 */
export { answerFor, GATE_HOSTS, HOST_ADAPTERS, HOST_NAMES, hostAdapter, hostWill, readStopPayload, type GateHost, type PayloadRead } from '../app/gate/hosts';
export type { GateVerdict, HostAdapter, HostAnswer, StopRequest } from '../app/gate/hosts';
