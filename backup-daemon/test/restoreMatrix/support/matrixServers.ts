/**
 * @module test/restoreMatrix/support/matrixServers
 * Every server the matrix needs, started once per test file and shared by all its cells: PostgreSQL,
 * MariaDB, Redis (the database sources), OpenSSH (the `sftp` storage), `rclone serve webdav`, s3rver (the
 * `s3` storage and the `s3` source's bucket), and dev-app's host emulator (the `host` storage, the `host`
 * source's zone and the `host-stream` source's library). Started side by side; a missing one fails naming it.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { startMariadbServer, type MariadbServer } from '../../support/mariadbServer.js'
import { startRedisServer, type RedisServer } from '../../support/redisServer.js'
import { requireRestic } from '../../support/requireRestic.js'
import { startSshServer, type SshServer } from '../../support/sshServer.js'
import { startWebdavServer, type WebdavServer } from '../../support/webdavServer.js'
import { startPostgres, type PostgresCluster } from '../../sources/support/postgresCluster.js'
import { startStreamEmulator, type StreamEmulator } from '../../sources/support/streamLibrary.js'
import { startS3rver, type RunningS3 } from '../../storages/support/s3rver.js'

/** The emulator with both its parts typed: the storage zone and the stream library. */
export type MatrixEmulator = StreamEmulator & { storage: { endpoint: string; zoneName: string; accessKey: string; cdnUrl: string } }

export interface MatrixServers {
  pg: PostgresCluster
  maria: MariadbServer
  redis: RedisServer
  ssh: SshServer
  webdav: WebdavServer
  s3: RunningS3
  /** A client of s3rver (the source bucket is `assetsBucket`). */
  s3Client: S3Client
  assetsBucket: string
  emulator: MatrixEmulator
  stop(): Promise<void>
}

export const zoneName = 'matrix-zone'
export const zoneKey = 'matrix-Zone-key-31'

/** Starts them all; if one fails, the others are stopped and the error names the one that failed. */
export async function startMatrixServers(): Promise<MatrixServers> {
  const started: { stop(): Promise<void> }[] = []
  const keep = async <T extends { stop?(): Promise<void>; close?(): Promise<void> }>(what: string, promise: Promise<T>): Promise<T> => {
    try {
      const server = await promise
      started.push({ stop: () => (server.stop ?? server.close)!.call(server) })
      return server
    } catch (err) {
      throw new Error(`the restore matrix needs ${what}: ${(err as Error).message}`, { cause: err })
    }
  }
  try {
    await requireRestic()
    const [pg, maria, redis, ssh, webdav, s3, emulator] = await Promise.all([
      keep('PostgreSQL (apt-get install postgresql)', startPostgres()),
      keep('MariaDB (apt-get install mariadb-server)', startMariadbServer()),
      keep('Redis (apt-get install redis-server)', startRedisServer()),
      keep('OpenSSH (apt-get install openssh-server)', startSshServer()),
      keep('rclone (apt-get install rclone)', startWebdavServer()),
      keep('s3rver', startS3rver('backups')),
      keep(
        "dev-app's host emulator",
        startStreamEmulator({ stream: { libraryId: 4242, apiKey: 'matrix-Stream-key-7' }, storage: { zoneName, accessKey: zoneKey } } as Parameters<
          typeof startStreamEmulator
        >[0]),
      ),
    ])
    const s3Client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    })
    const assetsBucket = 'assets'
    await s3Client.send(new CreateBucketCommand({ Bucket: assetsBucket }))
    return {
      pg,
      maria,
      redis,
      ssh,
      webdav,
      s3,
      s3Client,
      assetsBucket,
      emulator: emulator as MatrixEmulator,
      stop: async () => {
        s3Client.destroy()
        await Promise.allSettled(started.map((server) => server.stop()))
      },
    }
  } catch (err) {
    await Promise.allSettled(started.map((server) => server.stop()))
    throw err
  }
}
