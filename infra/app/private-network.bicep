// Optional private networking (privateNetworking = true): a virtual network whose `app` subnet
// the function app joins (Flex Consumption VNet integration, delegated to Microsoft.App/
// environments) and whose `endpoints` subnet holds a private endpoint for each storage service
// Drover and the host use (blob, queue, table), with their private DNS zones. main.bicep then
// turns the account's public network access off. Outbound calls to ARM, AKS and load URLs still
// leave through the integration's default route.
param name string
param location string = resourceGroup().location
param tags object = {}
param storageAccountName string
param addressPrefix string = '10.42.0.0/16'

var services = ['blob', 'queue', 'table']

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource vnet 'Microsoft.Network/virtualNetworks@2023-11-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    addressSpace: { addressPrefixes: [addressPrefix] }
    subnets: [
      {
        name: 'app'
        properties: {
          addressPrefix: cidrSubnet(addressPrefix, 24, 0)
          delegations: [{ name: 'flex', properties: { serviceName: 'Microsoft.App/environments' } }]
        }
      }
      {
        name: 'endpoints'
        properties: {
          addressPrefix: cidrSubnet(addressPrefix, 24, 1)
          privateEndpointNetworkPolicies: 'Disabled'
        }
      }
    ]
  }
}

resource zones 'Microsoft.Network/privateDnsZones@2020-06-01' = [
  for service in services: {
    name: 'privatelink.${service}.${environment().suffixes.storage}'
    location: 'global'
    tags: tags
  }
]

resource zoneLinks 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2020-06-01' = [
  for (service, i) in services: {
    parent: zones[i]
    name: '${name}-link'
    location: 'global'
    properties: {
      virtualNetwork: { id: vnet.id }
      registrationEnabled: false
    }
  }
]

resource endpoints 'Microsoft.Network/privateEndpoints@2023-11-01' = [
  for (service, i) in services: {
    name: '${name}-${service}'
    location: location
    tags: tags
    properties: {
      subnet: { id: '${vnet.id}/subnets/endpoints' }
      privateLinkServiceConnections: [
        {
          name: service
          properties: {
            privateLinkServiceId: storage.id
            groupIds: [service]
          }
        }
      ]
    }
  }
]

resource endpointZones 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2023-11-01' = [
  for (service, i) in services: {
    parent: endpoints[i]
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [{ name: service, properties: { privateDnsZoneId: zones[i].id } }]
    }
  }
]

output appSubnetId string = '${vnet.id}/subnets/app'
