// Moved to src/app/store-warnings.ts (src/app's verify-prd-file needs it); this name stays for the commands that import it.
export * from '../app/store-warnings';
