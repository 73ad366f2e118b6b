/**
 * What a PASS depends on, for staleness: any change in the workspace, these exact files,
 * or any file matching these globs (workspace-relative, forward slashes).
 */
export interface Coverage {
  workspace?: boolean;
  paths?: string[];
  globs?: string[];
}
