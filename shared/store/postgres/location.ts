/**
 * The connection URL as Baton shows it (`location`, error messages, `baton doctor`):
 * the password, whether in the user part or a `password=` parameter, becomes `***`.
 * A URL that does not parse is shown only by its scheme, since the password could be
 * anywhere in it.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url);
    return scheme ? `${scheme[0]}//(unparsable URL)` : '(unparsable URL)';
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (name.toLowerCase() === 'password') parsed.searchParams.set(name, '***');
  }
  // URL escapes the asterisks it just wrote; people read the unescaped form.
  return parsed.toString().replace(/%2A%2A%2A/gi, '***');
}
