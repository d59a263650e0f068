// js-yaml (a test-only dependency: the setup reads the metadata's labels files) ships no types.
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
