/** The branch an issue is worked on: `baton/<key-lowercase>-<slug of title>`. */
export function branchFor(key: string, title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const short = slug.length <= 48 ? slug : slug.slice(0, 48).replace(/-[^-]*$/, '') || slug.slice(0, 48);
  return short ? `baton/${key.toLowerCase()}-${short}` : `baton/${key.toLowerCase()}`;
}
