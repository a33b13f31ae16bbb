// Virtual Machine Contributor for Drover's identity on one resource group that holds scale sets
// it manages: deployed once per group named in scaleSetResourceGroups, and nowhere else.
targetScope = 'resourceGroup'

@description('Principal id of the user-assigned identity.')
param principalId string

var roles = loadJsonContent('../roles.json')

resource vmContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, principalId, roles.virtualMachineContributor.id)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.virtualMachineContributor.id)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Drover: ${roles.virtualMachineContributor.why}'
  }
}
