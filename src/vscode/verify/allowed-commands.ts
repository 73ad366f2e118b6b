// The matcher is pure and shared with the command line; it lives in src/verify.
export { allowList, type AllowList } from '../../verify/allowed-commands';
