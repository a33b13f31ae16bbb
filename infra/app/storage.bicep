// Drover's tables and queues, declared so that they exist before the first invocation (the app
// also creates them at start, which its Table and Queue Data Contributor roles allow). The
// names follow storageNames() in src/state/storage.ts; test/infra checks that they agree.
param storageAccountName string
@description('3–20 lowercase letters or digits, starting with a letter.')
param prefix string

var tableSuffixes = [
  'instances'
  'machines'
  'targets'
  'probes'
  'limiters'
  'leases'
  'decisions'
  'samples'
  'history'
]

var queueSuffixes = [
  'reconcile'
  'probe'
]

// The host moves a message that keeps failing to <queue>-poison; creating it up front keeps
// the first poisoned message from depending on a create at the worst moment.
var queueNames = flatten(map(queueSuffixes, suffix => ['${prefix}-${suffix}', '${prefix}-${suffix}-poison']))

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' existing = {
  parent: account
  name: 'default'
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' existing = {
  parent: account
  name: 'default'
}

resource tables 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = [
  for suffix in tableSuffixes: {
    parent: tableService
    name: '${prefix}${suffix}'
  }
]

resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = [
  for queueName in queueNames: {
    parent: queueService
    name: queueName
  }
]
