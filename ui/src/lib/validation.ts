/** Small checks the forms share. */

// Deliberately loose: the server has the final word; this only catches typos before sending.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}
