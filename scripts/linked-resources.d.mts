export const LINKED_TYPES: Record<string, string>;
export function scopeOf(id: string): { scope: string; type: string; known: boolean } | undefined;
export function linkedScopes(model: unknown): {
  scopes: { scope: string; type: string; from: string }[];
  unknown: { id: string; from: string }[];
};
