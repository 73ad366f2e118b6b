/**
 * What "Approve" does, in words, for the quick pick and the ISC table's button:
 * a set of verification commands is one approval whose detail holds one command a line, so
 * "run these 2 commands", never "run this command" for two. Pure: the webview uses it too.
 */
export function approveEffect(approval: { readonly kind: 'edit' | 'config' | 'command'; readonly detail?: string; readonly command?: string }): string {
  if (approval.kind === 'edit') return 'apply this edit (undoable)';
  if (approval.kind === 'config') return 'apply this configuration change (this one only)';
  const lines = (approval.command ?? approval.detail ?? '').split('\n').filter((l) => l.trim() !== '').length;
  return lines > 1 ? `run these ${lines} commands` : 'run this command';
}
