// Azure Kubernetes Service RBAC Writer for Drover's identity on one cluster (Azure RBAC for
// Kubernetes authorization must be enabled on it). Drover reads the cluster's address and CA
// from the kubeconfig it is deployed with, so it needs no cluster-user credential role.
targetScope = 'resourceGroup'

param clusterName string
@description('Principal id of the user-assigned identity.')
param principalId string

var roles = loadJsonContent('../roles.json')

resource cluster 'Microsoft.ContainerService/managedClusters@2024-02-01' existing = {
  name: clusterName
}

resource rbacWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(cluster.id, principalId, roles.aksRbacWriter.id)
  scope: cluster
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.aksRbacWriter.id)
    principalId: principalId
    principalType: 'ServicePrincipal'
    description: 'Drover: ${roles.aksRbacWriter.why}'
  }
}
