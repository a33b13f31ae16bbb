// Drover on Azure Functions (Flex Consumption), provisioned by `azd up`.
//
// One user-assigned identity does everything: the Functions host's storage connection, Drover's
// own Table and Queue clients, Application Insights ingestion, ARM calls on the scale sets and,
// optionally, Kubernetes calls on one AKS cluster. No key or connection string is created:
// the storage account refuses shared keys and Application Insights refuses its ingestion key.
// The identity holds data-plane roles on this account and Drover's own custom roles
// (infra/roles.json, app/role-definitions.bicep): on each named scale set, on their resource
// groups for operation polling (and Flexible VMs), and, through the post-provision hook, on the
// resources the scale sets reference and on the AKS namespaces of its targets. No built-in
// compute or Kubernetes role, nothing assigned at subscription scope.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment; names the resource group and seeds every resource name.')
param environmentName string

@minLength(1)
@description('Region of every resource. Flex Consumption must be offered there.')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Comma-separated resourceGroup/name of every scale set Drover manages (pools[].scaleSet). The identity gets the scale set operator role on each and the operation reader role on their groups. Empty: no ARM rights.')
param scaleSets string = ''

@description('Comma-separated resource groups (of those in scaleSets) holding a Flexible scale set; the pre-provision hook fills it from the scale set models. They also get the Flexible role (VMs, NICs and disks of the group).')
param flexibleScaleSetGroups string = ''

@description('Subscription of those resource groups (azure.subscriptionId in the configuration). Empty: this deployment\'s subscription.')
param scaleSetSubscriptionId string = ''

@description('Resource id of the AKS cluster Drover scales with `kubernetes.auth: azure`. Its subscription gets the AKS workload scaler role definition; the post-provision hook assigns it per namespace (Azure RBAC) or applies a namespaced Kubernetes Role. Empty: no Kubernetes rights.')
param aksClusterId string = ''

@description('Prefix of Drover\'s tables and queues; must equal storage.prefix in drover.config.yaml. Empty: the default, drover.')
param storagePrefix string = ''

@description('NCRONTAB schedule (six fields) of the reconcile timer. Empty: every minute.')
param reconcileSchedule string = ''

@description('Most instances the app may scale out to (Flex Consumption accepts 40 and more). Every instance shares the same leases and rate limits, so more instances do not mean more ARM calls.')
param maximumInstanceCount int = 40

@description('Storage behind private endpoints, public network access off, and the function app on VNet integration. Off by default: the operator\'s CLI and `azd deploy` then need a way into the network (README, "Private networking").')
param privateNetworking bool = false

var abbrs = loadJsonContent('abbreviations.json')
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }
var droverPrefix = empty(storagePrefix) ? 'drover' : storagePrefix
var droverSchedule = empty(reconcileSchedule) ? '0 */1 * * * *' : reconcileSchedule
var functionAppName = '${abbrs.webSitesFunctions}drover-${resourceToken}'
// Flex Consumption reads the deployed package from this container, with the app's identity.
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'
// `resourceGroup/name` entries; resource group names compare without case, as ARM does.
var scaleSetEntries = map(
  filter(map(split(scaleSets, ','), entry => trim(entry)), entry => !empty(entry)),
  entry => { resourceGroup: toLower(split(entry, '/')[0]), name: last(split(entry, '/')) }
)
var scaleSetGroups = union(map(scaleSetEntries, entry => entry.resourceGroup), [])
var flexibleGroups = map(filter(split(flexibleScaleSetGroups, ','), group => !empty(trim(group))), group => toLower(trim(group)))
var scaleSetSubscription = empty(scaleSetSubscriptionId) ? subscription().subscriptionId : scaleSetSubscriptionId
// Custom role definitions: one GUID per role, subscription and environment.
var roleSuffix = '${environmentName}-${resourceToken}'
var scaleSetRoleIds = {
  scaleSetOperator: guid(scaleSetSubscription, 'drover', roleSuffix, 'scaleSetOperator')
  scaleSetGroup: guid(scaleSetSubscription, 'drover', roleSuffix, 'scaleSetGroup')
  flexibleScaleSetGroup: guid(scaleSetSubscription, 'drover', roleSuffix, 'flexibleScaleSetGroup')
  scaleSetLinkedResources: guid(scaleSetSubscription, 'drover', roleSuffix, 'scaleSetLinkedResources')
}
// /subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.ContainerService/managedClusters/{name}:
// padded so that every index exists even for an empty id, when the module is skipped.
var aksIdParts = split('${aksClusterId}/////////', '/')
var aksSubscription = empty(aksIdParts[2]) ? subscription().subscriptionId : aksIdParts[2]
var aksWorkloadScalerId = guid(aksSubscription, 'drover', roleSuffix, 'aksWorkloadScaler')

resource rg 'Microsoft.Resources/resourceGroups@2021-04-01' = {
  name: '${abbrs.resourcesResourceGroups}${environmentName}'
  location: location
  tags: tags
}

module identity 'br/public:avm/res/managed-identity/user-assigned-identity:0.4.1' = {
  name: 'identity'
  scope: rg
  params: {
    name: '${abbrs.managedIdentityUserAssignedIdentities}drover-${resourceToken}'
    location: location
    tags: tags
  }
}

module plan 'br/public:avm/res/web/serverfarm:0.1.1' = {
  name: 'plan'
  scope: rg
  params: {
    name: '${abbrs.webServerFarms}${resourceToken}'
    sku: {
      name: 'FC1'
      tier: 'FlexConsumption'
    }
    reserved: true
    location: location
    tags: tags
  }
}

module storage 'br/public:avm/res/storage/storage-account:0.8.3' = {
  name: 'storage'
  scope: rg
  params: {
    name: '${abbrs.storageStorageAccounts}${resourceToken}'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    dnsEndpointType: 'Standard'
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    networkAcls: {
      defaultAction: privateNetworking ? 'Deny' : 'Allow'
      bypass: 'AzureServices'
    }
    blobServices: {
      containers: [{ name: deploymentContainerName }]
    }
    minimumTlsVersion: 'TLS1_2'
    location: location
    tags: tags
  }
}

module storageEntities 'app/storage.bicep' = {
  name: 'storageEntities'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    prefix: droverPrefix
  }
}

module logAnalytics 'br/public:avm/res/operational-insights/workspace:0.11.1' = {
  name: 'logAnalytics'
  scope: rg
  params: {
    name: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    location: location
    tags: tags
    dataRetention: 30
  }
}

module monitoring 'br/public:avm/res/insights/component:0.6.0' = {
  name: 'monitoring'
  scope: rg
  params: {
    name: '${abbrs.insightsComponents}${resourceToken}'
    location: location
    tags: tags
    workspaceResourceId: logAnalytics.outputs.resourceId
    disableLocalAuth: true
  }
}

module privateNetwork 'app/private-network.bicep' = if (privateNetworking) {
  name: 'privateNetwork'
  scope: rg
  params: {
    name: '${abbrs.networkVirtualNetworks}drover-${resourceToken}'
    location: location
    tags: tags
    storageAccountName: storage.outputs.name
  }
}

module functions 'app/functions.bicep' = {
  name: 'functions'
  scope: rg
  params: {
    name: functionAppName
    location: location
    tags: tags
    planId: plan.outputs.resourceId
    storageAccountName: storage.outputs.name
    deploymentContainerName: deploymentContainerName
    identityId: identity.outputs.resourceId
    identityClientId: identity.outputs.clientId
    applicationInsightsName: monitoring.outputs.name
    storagePrefix: droverPrefix
    reconcileSchedule: droverSchedule
    maximumInstanceCount: maximumInstanceCount
    virtualNetworkSubnetId: privateNetworking ? privateNetwork.outputs.appSubnetId : ''
  }
  dependsOn: [storageEntities]
}

module rbac 'app/rbac.bicep' = {
  name: 'rbac'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    applicationInsightsName: monitoring.outputs.name
    principalId: identity.outputs.principalId
  }
}

module scaleSetRoles 'app/role-definitions.bicep' = if (!empty(scaleSetEntries)) {
  name: 'droverScaleSetRoles-${resourceToken}'
  scope: subscription(scaleSetSubscription)
  params: {
    nameSuffix: roleSuffix
    definitions: map(items(scaleSetRoleIds), role => { key: role.key, id: role.value })
  }
}

module aksRoles 'app/role-definitions.bicep' = if (!empty(aksClusterId)) {
  name: 'droverAksRoles-${resourceToken}'
  scope: subscription(aksSubscription)
  params: {
    nameSuffix: roleSuffix
    definitions: [{ key: 'aksWorkloadScaler', id: aksWorkloadScalerId }]
  }
}

module scaleSetAccess 'app/scale-set-access.bicep' = [
  for group in scaleSetGroups: {
    name: 'scaleSetAccess-${uniqueString(scaleSetSubscription, group)}'
    scope: resourceGroup(scaleSetSubscription, group)
    params: {
      principalId: identity.outputs.principalId
      scaleSetNames: map(filter(scaleSetEntries, entry => entry.resourceGroup == group), entry => entry.name)
      roleIds: scaleSetRoleIds
      flexible: contains(flexibleGroups, group)
    }
    dependsOn: [scaleSetRoles]
  }
]

output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_NAME string = functions.outputs.name
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.name
output DROVER_IDENTITY_CLIENT_ID string = identity.outputs.clientId
output DROVER_IDENTITY_PRINCIPAL_ID string = identity.outputs.principalId
// For the post-provision hook, which assigns them where a deployment cannot know the scope.
output DROVER_LINKED_ROLE_ID string = empty(scaleSetEntries) ? '' : '/subscriptions/${scaleSetSubscription}/providers/Microsoft.Authorization/roleDefinitions/${scaleSetRoleIds.scaleSetLinkedResources}'
output DROVER_AKS_ROLE_ID string = empty(aksClusterId) ? '' : '/subscriptions/${aksSubscription}/providers/Microsoft.Authorization/roleDefinitions/${aksWorkloadScalerId}'
output DROVER_STATUS_URL string = 'https://${functions.outputs.defaultHostname}/api/status'
