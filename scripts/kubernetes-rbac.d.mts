import type { DroverConfig } from '../src/config/schema.js';

export const ROLE_NAME: string;

export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface RbacDocument {
  apiVersion: string;
  kind: 'Role' | 'RoleBinding';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  rules?: RbacRule[];
  subjects?: { kind: string; apiGroup: string; name: string }[];
  roleRef?: { kind: string; apiGroup: string; name: string };
}

export function kubernetesRbac(config: Pick<DroverConfig, 'targets'>, options: { principalId: string; only?: 'all' | 'custom'; grants?: readonly { grant: import('../src/load/source-kind.js').SourceGrant }[] }): RbacDocument[];
export function toYaml(docs: RbacDocument[]): string;
