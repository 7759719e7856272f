// The credential: kept only in sessionStorage (gone when the tab closes), sent only as a bearer
// header by api.ts, never put in a URL.

const KEY = 'attest.key';

export function storedKey(): string | null {
  try {
    const k = sessionStorage.getItem(KEY);
    return k && k.trim() ? k : null;
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  try {
    sessionStorage.setItem(KEY, key);
  } catch {
    // Storage refused (private mode with no quota): the key lives only in memory for this page.
  }
}

export function clearKey(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
