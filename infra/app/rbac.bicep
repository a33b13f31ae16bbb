// Data-plane roles of Drover's identity on its own storage account and Application Insights.
// Nothing here reaches beyond these two resources.
param storageAccountName string
param applicationInsightsName string
@description('Principal id of the user-assigned identity.')
param principalId string

var roles = loadJsonContent('../roles.json')

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource storageRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for role in [roles.storageBlobDataOwner, roles.storageQueueDataContributor, roles.storageTableDataContributor]: {
    name: guid(storage.id, principalId, role.id)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role.id)
      principalId: principalId
      principalType: 'ServicePrincipal'
      description: 'Drover: ${role.why}'
    }
  }
]

resource monitoringRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, principalId, roles.monitoringMetricsPublisher.id)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher.id)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Drover: ${roles.monitoringMetricsPublisher.why}'
  }
}
