// The function app: Flex Consumption, Node.js 22, one user-assigned identity for every connection.
// Its app settings are everything Drover and the Functions host read (test/infra checks this
// list against the code).
param name string
param location string = resourceGroup().location
param tags object = {}
param planId string
param storageAccountName string
param deploymentContainerName string
param identityId string
param identityClientId string
param applicationInsightsName string
@description('Names Drover\'s tables and queues; the queue triggers bind to <prefix>-reconcile and <prefix>-probe.')
param storagePrefix string
@description('NCRONTAB schedule of the reconcile timer.')
param reconcileSchedule string
param instanceMemoryMB int = 2048
param maximumInstanceCount int = 40
@description('Subnet (delegated to Microsoft.App/environments) the app joins for private networking; empty: none.')
param virtualNetworkSubnetId string = ''

resource stg 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var appSettings = {
  // The Functions host's storage (timer locks, queue triggers) through the identity.
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  AzureWebJobsStorage__blobServiceUri: stg.properties.primaryEndpoints.blob
  AzureWebJobsStorage__queueServiceUri: stg.properties.primaryEndpoints.queue
  AzureWebJobsStorage__tableServiceUri: stg.properties.primaryEndpoints.table
  // Ingestion with the identity: the component's local authentication is disabled.
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  // DefaultAzureCredential and Drover's own clients pick the user-assigned identity by this id.
  AZURE_CLIENT_ID: identityClientId
  // Deployed at the package root by scripts/build.mjs.
  DROVER_CONFIG: 'drover.config.yaml'
  DROVER_SCHEDULE: reconcileSchedule
  DROVER_RECONCILE_QUEUE: '${storagePrefix}-reconcile'
  DROVER_PROBE_QUEUE: '${storagePrefix}-probe'
}

module site 'br/public:avm/res/web/site:0.15.1' = {
  name: 'site'
  params: {
    kind: 'functionapp,linux'
    name: name
    location: location
    tags: union(tags, { 'azd-service-name': 'drover' })
    serverFarmResourceId: planId
    managedIdentities: {
      systemAssigned: false
      userAssignedResourceIds: [identityId]
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${stg.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        instanceMemoryMB: instanceMemoryMB
        maximumInstanceCount: maximumInstanceCount
      }
      // Flex Consumption takes the runtime from here: no FUNCTIONS_WORKER_RUNTIME app setting.
      runtime: {
        name: 'node'
        version: '22'
      }
    }
    siteConfig: {
      alwaysOn: false
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
    }
    httpsOnly: true
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    // Deployment uses Entra ID tokens (azd); no publishing password exists to leak.
    basicPublishingCredentialsPolicies: [
      { name: 'ftp', allow: false }
      { name: 'scm', allow: false }
    ]
    appSettingsKeyValuePairs: appSettings
  }
}

output name string = site.outputs.name
output defaultHostname string = site.outputs.defaultHostname
