/**
 * The two services' specifications, read from their folders: the ARM files of versions.ts and
 * the Kubernetes v1.34 swagger. Kubernetes custom resources have no path in the swagger (their
 * API is the CRD's); their scale subresource answers the same `autoscaling/v1` Scale as a
 * Deployment's, so the Deployment scale operations stand in for them.
 */
import path from 'node:path';
import type { SchemaCheck, ServiceSpecs } from './check.js';
import { operationsOf, type SpecOperation } from './operations.js';
import { schemaCheck, loadTransitively } from './schemas.js';
import { createSpecStore, fileUrl, requireFolder } from './specs.js';
import { ARM_SPEC_FILES } from './versions.js';

export interface LoadedSpecs {
  arm: ServiceSpecs;
  kubernetes: ServiceSpecs;
  schemas: SchemaCheck;
}

/** ARM's operation-status polls (Azure-AsyncOperation): ARM's long-running-operation protocol, no OpenAPI operation. */
const ARM_OPERATION_STATUS = /^\/subscriptions\/[^/]+\/providers\/Microsoft\.Compute\/locations\/[^/]+\/operations\/[^/]+$/i;

const CUSTOM_SCALE = /^\/apis\/[^/]+\/[^/]+\/namespaces\/([^/]+)\/[^/]+\/([^/]+)\/scale$/;
const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';

export function loadSpecs(armDir: string, kubernetesSwagger: string): LoadedSpecs {
  requireFolder(armDir, 'ARM specifications');
  requireFolder(path.dirname(kubernetesSwagger), 'Kubernetes specification');
  const store = createSpecStore();
  const armRoots = ARM_SPEC_FILES.map((f) => fileUrl(path.join(armDir, f.path)));
  const kubeRoot = fileUrl(kubernetesSwagger);
  loadTransitively(store, [...armRoots, kubeRoot]);
  const kubeOps = operationsOf(store, kubeRoot);
  return {
    arm: { operations: armRoots.flatMap((url) => operationsOf(store, url)), exempt: ARM_OPERATION_STATUS, apiVersions: true },
    kubernetes: {
      operations: kubeOps,
      standIn: (method, pathname) => customScale(kubeOps, method, pathname),
      // The schema requires no field; an API-convention Status says what it is.
      errorSchema: { allOf: [{ $ref: `${kubeRoot}#/definitions/${STATUS}` }, { required: ['kind'], properties: { kind: { enum: ['Status'] } } }] },
      apiVersions: false,
    },
    schemas: schemaCheck(store),
  };
}

function customScale(operations: readonly SpecOperation[], method: string, pathname: string): { op: SpecOperation; name: string } | undefined {
  if (!CUSTOM_SCALE.test(pathname)) return undefined;
  const id = method === 'GET' ? 'readAppsV1NamespacedDeploymentScale' : method === 'PATCH' ? 'patchAppsV1NamespacedDeploymentScale' : undefined;
  const op = operations.find((o) => o.operationId === id);
  return op && { op, name: method === 'GET' ? 'custom resource getScale (as readAppsV1NamespacedDeploymentScale)' : 'custom resource patchScale (as patchAppsV1NamespacedDeploymentScale)' };
}
