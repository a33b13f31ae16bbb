// Drover's rights in one resource group that holds scale sets it manages, deployed once per
// group named in DROVER_SCALE_SETS:
//   - the scale set operator role on each named scale set, and on nothing else in the group;
//   - the operation reader role on the group (ARM authorises polling a long-running operation
//     at group level);
//   - for a group with Flexible scale sets only, the Flexible role on the group: their
//     instances are the group's VMs, NICs and disks, not children of the scale set.
// The roles are the custom ones of role-definitions.bicep; no built-in role is assigned.
targetScope = 'resourceGroup'

@description('Principal id of the user-assigned identity.')
param principalId string
@description('Names of the scale sets in this group that Drover manages.')
param scaleSetNames array
@description('GUIDs of the custom role definitions, by key of roles.json "custom".')
param roleIds object
@description('Whether the group holds a Flexible scale set Drover manages.')
param flexible bool = false

var roles = loadJsonContent('../roles.json')
var roleDefinition = 'Microsoft.Authorization/roleDefinitions'

resource scaleSets 'Microsoft.Compute/virtualMachineScaleSets@2024-03-01' existing = [
  for name in scaleSetNames: {
    name: name
  }
]

resource scaleSetOperator 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (name, i) in scaleSetNames: {
    name: guid(scaleSets[i].id, principalId, roleIds.scaleSetOperator)
    scope: scaleSets[i]
    properties: {
      roleDefinitionId: subscriptionResourceId(roleDefinition, roleIds.scaleSetOperator)
      principalId: principalId
      principalType: 'ServicePrincipal'
      description: 'Drover: ${roles.custom.scaleSetOperator.description}'
    }
  }
]

resource scaleSetGroup 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, principalId, roleIds.scaleSetGroup)
  properties: {
    roleDefinitionId: subscriptionResourceId(roleDefinition, roleIds.scaleSetGroup)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Drover: ${roles.custom.scaleSetGroup.description}'
  }
}

resource flexibleScaleSetGroup 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (flexible) {
  name: guid(resourceGroup().id, principalId, roleIds.flexibleScaleSetGroup)
  properties: {
    roleDefinitionId: subscriptionResourceId(roleDefinition, roleIds.flexibleScaleSetGroup)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Drover: ${roles.custom.flexibleScaleSetGroup.description}'
  }
}
