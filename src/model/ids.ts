/** Sortable, collision-resistant ids: base36 milliseconds plus random base36. */
export function newId(prefix: string, now: Date = new Date(), random: () => number = Math.random): string {
  const time = now.getTime().toString(36).padStart(9, '0');
  let tail = '';
  for (let i = 0; i < 6; i++) tail += Math.floor(random() * 36).toString(36);
  return `${prefix}-${time}${tail}`;
}
