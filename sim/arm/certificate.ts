/** A fresh self-signed certificate for the simulator, valid for 127.0.0.1 and localhost. */
import { generate } from 'selfsigned';

export interface SimCertificate {
  key: string;
  /** PEM; also the trust anchor clients need (`azure.caFile`, `NODE_EXTRA_CA_CERTS`). */
  cert: string;
}

export async function generateSimCertificate(): Promise<SimCertificate> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 7 * 24 * 3_600_000);
  const pems = await generate([{ name: 'commonName', value: 'drover-arm-sim' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
