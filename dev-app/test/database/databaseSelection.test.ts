/**
 * `DATABASE_URI` picks the CMS's database adapter, and the same reading picks the daemon's `cms` source:
 * `postgres://` and `postgresql://` mean @payloadcms/db-postgres, `mongodb://` the MongoDB adapter,
 * anything else the SQLite file.
 */
import { expect } from 'chai'
import { databaseAdapter } from '../../src/database/databaseAdapter.js'
import { databaseKind } from '../../src/database/databaseKind.js'

describe('dev-app database selection', () => {
  it('reads the kind of database from the URI scheme', () => {
    expect(databaseKind('postgres://cms:pw@127.0.0.1:5432/cms')).to.equal('postgres')
    expect(databaseKind('postgresql://cms@db/cms')).to.equal('postgres')
    expect(databaseKind('POSTGRES://cms@db/cms')).to.equal('postgres')
    expect(databaseKind('mongodb://127.0.0.1/cms')).to.equal('mongodb')
    expect(databaseKind('mongodb+srv://cluster.example/cms')).to.equal('mongodb')
    expect(databaseKind('file:/data/db/cms.db')).to.equal('sqlite')
    // Not a scheme: a file whose name starts with "postgres" is still SQLite.
    expect(databaseKind('file:/data/postgres.db')).to.equal('sqlite')
  })

  it('gives Payload the matching adapter', () => {
    expect(databaseAdapter('postgres://cms:pw@127.0.0.1:5432/cms').name).to.equal('postgres')
    expect(databaseAdapter('postgresql://cms:pw@127.0.0.1:5432/cms').name).to.equal('postgres')
    expect(databaseAdapter('file:/tmp/cms.db').name).to.equal('sqlite')
    expect(databaseAdapter('mongodb://127.0.0.1/cms').name).to.equal('mongoose')
  })
})
