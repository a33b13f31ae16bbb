// Drover's custom roles, defined in one subscription: the actions of each come from
// infra/roles.json ("custom"), which test/infra/least-privilege.test.ts holds to the calls the
// code makes (src/azure/operations.ts, src/kubernetes/operations.ts). Defining a role needs
// Owner or User Access Administrator on the subscription (README, prerequisites).
targetScope = 'subscription'

@description('Which roles to define: { key (of roles.json "custom"), id (the definition\'s GUID) }.')
param definitions array
@description('Makes the role names unique in the tenant (role names are tenant-wide).')
param nameSuffix string

var customRoles = loadJsonContent('../roles.json').custom

resource roleDefinitions 'Microsoft.Authorization/roleDefinitions@2022-04-01' = [
  for definition in definitions: {
    name: definition.id
    properties: {
      roleName: '${customRoles[definition.key].name} (${nameSuffix})'
      description: customRoles[definition.key].description
      type: 'CustomRole'
      permissions: [
        {
          actions: map(customRoles[definition.key].?actions ?? [], entry => entry.action)
          notActions: []
          dataActions: map(customRoles[definition.key].?dataActions ?? [], entry => entry.action)
          notDataActions: []
        }
      ]
      assignableScopes: [subscription().id]
    }
  }
]
