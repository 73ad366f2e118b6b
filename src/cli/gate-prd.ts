// Moved to src/app/gate/prds.ts (the done gate's home); this name stays for the adapters that import it.
export * from '../app/gate/prds';
