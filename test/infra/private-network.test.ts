/**
 * Private networking is an option, off by default: when on, storage refuses the public network
 * and is reached through private endpoints for each service Drover and the host use, and the
 * function app joins the virtual network. Read from the Bicep text (it cannot be compiled here).
 */
import { describe, expect, it } from 'vitest';
import { moduleDeclaration, readInfra } from './support/bicep.js';

const main = readInfra('main.bicep');
const network = readInfra('app/private-network.bicep');
const parameters = (JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> }).parameters;

describe('private networking', () => {
  it('is an azd parameter, off by default', () => {
    expect(main).toMatch(/^param privateNetworking bool = false$/m);
    expect(parameters.privateNetworking).toEqual({ value: '${DROVER_PRIVATE_NETWORKING=false}' });
  });

  it('turns the storage account\'s public network access off and denies by default', () => {
    expect(main).toContain("publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'");
    expect(main).toContain("defaultAction: privateNetworking ? 'Deny' : 'Allow'");
  });

  it('deploys the network only when asked, and puts the function app on its delegated subnet', () => {
    expect(moduleDeclaration(main, 'app/private-network.bicep')).toMatch(/= if \(privateNetworking\)/);
    expect(moduleDeclaration(main, 'app/functions.bicep')).toContain("virtualNetworkSubnetId: privateNetworking ? privateNetwork.outputs.appSubnetId : ''");
    expect(network).toContain("serviceName: 'Microsoft.App/environments'");
    expect(readInfra('app/functions.bicep')).toContain('virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId');
  });

  it('gives every storage service the app uses a private endpoint and a private DNS zone', () => {
    expect(network).toContain("var services = ['blob', 'queue', 'table']");
    expect(network).toContain("name: 'privatelink.${service}.${environment().suffixes.storage}'");
    expect(network).toMatch(/groupIds: \[service\]/);
    expect(network).toMatch(/privateDnsZoneId: zones\[i\]\.id/);
  });
});
