// A run asks for approvals in a non-modal notification (the ISC table and the palette offer the
// same answers). Headless windows often do not toast, so the notification may be in the
// notification center: find it there and press one of its buttons, as a person would.

/** Presses `button` (Approve, Always for this run, Show Diff, Deny) on the approval notification containing `containing`. */
export async function answerApprovalNotification(workbench, containing, button, { timeoutMs = 60_000 } = {}) {
  await workbench.notifications({ containing, timeoutMs });
  const item = workbench.page.locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item').filter({ hasText: containing }).last();
  const target = item.getByRole('button', { name: button, exact: true });
  // A collapsed item in the center shows its buttons once expanded.
  if (!(await target.isVisible())) await item.click();
  await target.click();
}
