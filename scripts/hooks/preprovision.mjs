#!/usr/bin/env node
/**
 * azd preprovision: reads each scale set in DROVER_SCALE_SETS with `az vmss show` and records the
 * resource groups of the Flexible ones in DROVER_FLEXIBLE_SCALE_SET_GROUPS, which the Bicep gives
 * the Flexible role (their instances are the group's VMs). Uniform-only groups do not get it.
 */
import { az, azdEnvSet, say, scaleSetSubscription, scaleSetsOf } from './az.mjs';

const subscription = scaleSetSubscription();
const flexible = new Set();
for (const { resourceGroup, name } of scaleSetsOf()) {
  const model = az(['vmss', 'show', '--resource-group', resourceGroup, '--name', name, ...(subscription ? ['--subscription', subscription] : [])]);
  const mode = model?.orchestrationMode ?? 'Uniform';
  say(`scale set ${resourceGroup}/${name}: ${mode}`);
  if (mode === 'Flexible') flexible.add(resourceGroup.toLowerCase());
}
azdEnvSet('DROVER_FLEXIBLE_SCALE_SET_GROUPS', [...flexible].join(','));
