// A real tile server for the browser tests (the tests run offline): every tile is one small PNG,
// a light ground with a darker border, so screenshots show the tiles. Counts what it served.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 256;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A SIZE×SIZE RGB PNG: ground colour, a one-pixel border of the line colour. */
export function tilePng(): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(1 + SIZE * 3);
    for (let x = 0; x < SIZE; x++) {
      const line = x === 0 || y === 0;
      row.set(line ? [200, 205, 190] : [236, 238, 228], 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface TileServer {
  /** The URL template to give INSPECTOR_TILE_URL. */
  url: string;
  served(): number;
  close(): Promise<void>;
}

export async function startTileServer(): Promise<TileServer> {
  const png = tilePng();
  let served = 0;
  const server: Server = createServer((_request, response) => {
    served++;
    response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(png);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/{z}/{x}/{y}.png`,
    served: () => served,
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}
