/**
 * Where the committed allow-list of verification commands lives. A module of its own, with no
 * imports: the rule that decides commands names it, and the extension's first bundle must not
 * load the YAML and schema code that reads the file (verify-commands-file.ts).
 */
export const VERIFY_COMMANDS_FILE = '.ideal-state/verify-commands.yaml';
