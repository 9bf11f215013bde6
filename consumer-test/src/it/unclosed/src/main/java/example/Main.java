package example;

import io.leasehold.devdb.LocalPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/** Starts a local PostgreSQL and returns without closing it: its JVM-exit hook must stop it. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    LocalPostgres pg = LocalPostgres.start();
    String dataDirectory;
    try (Connection c = pg.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW data_directory")) {
      rs.next();
      dataDirectory = rs.getString(1);
    }
    System.out.println("UNCLOSED STARTED port=" + pg.port() + " data=" + dataDirectory);
  }
}
