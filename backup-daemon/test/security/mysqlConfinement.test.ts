/**
 * Issue 28 item 11: a MySQL/MariaDB restore stays in its target database. Against a real MariaDB server
 * (`mariadbd`, started for this file), a dump holding `USE shop;` (or `CREATE DATABASE`, an executable
 * comment with `USE`, or the client's `\u`) restored into `shop_copy` never writes into `shop`: the restore
 * fails naming `shop_copy`; what came before the statement went to `shop_copy` only. mariadb-dump's own
 * dump (sandbox line, executable comments, triggers with DELIMITER) still restores.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { restoreMysql } from '../../src/sources/mysql/restoreMysql.js'
import { confineMysqlDump } from '../../src/sources/mysql/confineMysqlDump.js'
import { startMariadbServer, type MariadbServer } from '../support/mariadbServer.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

describe('security: a MySQL/MariaDB restore is confined to its target database (real MariaDB)', function () {
  this.timeout(120_000)
  let server: MariadbServer

  before(async () => {
    server = await startMariadbServer()
  })
  after(async () => {
    await server?.stop()
  })

  const connection = (database: string) => ({ database, port: server.port, username: server.username, password: server.password })
  const fresh = async () => {
    await server.sql('DROP DATABASE IF EXISTS shop; DROP DATABASE IF EXISTS shop_copy; DROP DATABASE IF EXISTS evil')
    await server.sql("CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item TEXT); INSERT INTO shop.orders VALUES (1, 'real order')")
  }
  const attacks: [string, string][] = [
    ['USE shop;', "CREATE TABLE first (id INT);\nINSERT INTO first VALUES (1);\nUSE shop;\nDELETE FROM orders;\nINSERT INTO orders VALUES (666, 'forged');\n"],
    ['an executable comment with USE', 'CREATE TABLE first (id INT);\n/*!40000 USE shop */;\nDELETE FROM orders;\n'],
    ['the client command \\u', 'CREATE TABLE first (id INT);\n\\u shop\nDELETE FROM orders;\n'],
    ['CREATE DATABASE', 'CREATE TABLE first (id INT);\nCREATE DATABASE evil;\n'],
    // Issue 37: dynamic SQL builds the statement that leaves at run time, so no USE appears in the dump.
    [
      'PREPARE of a variable (SET @q=CONCAT)',
      "CREATE TABLE first (id INT);\nSET @q=CONCAT('USE ','shop');\nPREPARE s FROM @q;\nEXECUTE s;\nDELETE FROM orders;\n",
    ],
    ['EXECUTE IMMEDIATE', "CREATE TABLE first (id INT);\nEXECUTE IMMEDIATE CONCAT('DELETE FROM sh','op.orders');\n"],
    ['PREPARE of a literal', "CREATE TABLE first (id INT);\nPREPARE s FROM 'DELETE FROM shop.orders';\nEXECUTE s;\n"],
    [
      'dynamic SQL inside a procedure, then CALL',
      "CREATE TABLE first (id INT);\nDELIMITER ;;\nCREATE PROCEDURE p() BEGIN SET @q='DELETE FROM shop.orders'; PREPARE s FROM @q; EXECUTE s; END;;\nDELIMITER ;\nCALL p();\n",
    ],
    [
      'an executable comment with EXECUTE',
      "CREATE TABLE first (id INT);\nSET @q='DELETE FROM shop.orders';\n/*!50000 PREPARE s FROM @q */;\n/*!50000 EXECUTE s */;\n",
    ],
  ]
  for (const [what, dump] of attacks) {
    it(`refuses a dump with ${what}: shop is untouched, the message names shop_copy`, async () => {
      await fresh()
      const err = (await restoreMysql(Readable.from([Buffer.from(dump)]), connection('shop_copy')).catch((e: unknown) => e)) as Error
      expect(err, 'the restore succeeded').to.be.instanceOf(Error)
      expect(err.message).to.match(/leaves database "shop_copy".*only "shop_copy" was written/)
      expect(await server.sql('SELECT id, item FROM orders ORDER BY id', 'shop')).to.equal('1\treal order')
      expect(await server.sql("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'evil'")).to.equal('0')
      // What came before the statement went to shop_copy, if anything: never elsewhere.
      expect(await server.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop_copy'")).to.be.oneOf(['', 'first'])
    })
  }

  it("restores mariadb-dump's own dump of a database with a trigger (DELIMITER, executable comments, sandbox line)", async () => {
    await fresh()
    await server.sql('CREATE TABLE audit (n INT); CREATE TRIGGER count_orders AFTER INSERT ON orders FOR EACH ROW INSERT INTO audit VALUES (NEW.id)', 'shop')
    const { stdout } = await run(
      'mariadb-dump',
      ['--protocol=TCP', '-h', '127.0.0.1', '-P', String(server.port), '-u', server.username, '--triggers', 'shop'],
      {
        env: { ...process.env, MYSQL_PWD: server.password },
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
      },
    )
    expect(stdout.toString('latin1')).to.include('DELIMITER ;;')
    await restoreMysql(Readable.from([stdout]), connection('shop_copy'))
    expect(await server.sql('SELECT id, item FROM orders', 'shop_copy')).to.equal('1\treal order')
    await server.sql("INSERT INTO orders VALUES (2, 'x')", 'shop_copy')
    expect(await server.sql('SELECT n FROM audit', 'shop_copy')).to.equal('2')
  })

  it('passes every byte of a dump through unchanged, whatever the chunk boundaries', async () => {
    const dump = "/*M!999999\\- enable the sandbox mode */\n/*!40101 SET NAMES utf8mb4 */;\nINSERT INTO t VALUES ('a; USE x; \\' \xff\x00');\n-- USE x;\n"
    for (const size of [1, 2, 5, 1000]) {
      const chunks: Buffer[] = []
      for (let i = 0; i < dump.length; i += size) chunks.push(Buffer.from(dump.slice(i, i + size), 'latin1'))
      const out: Buffer[] = []
      for await (const chunk of Readable.from(chunks).pipe(confineMysqlDump('t'))) out.push(chunk as Buffer)
      expect(Buffer.concat(out).toString('latin1')).to.equal(dump)
    }
  })
})
