/**
 * A directory of files that refuses stale writers ({@code FencedFileStore}), and {@code
 * ResourceAccessException}, which every Leasehold adapter throws. Needs the fencing API and the JDK
 * only: an application that stores files takes this module without a JDBC driver, Jackson or
 * Liquibase.
 *
 * <p>Two packages are not an API and go only to {@code io.leasehold.adapters}, whose file tool
 * journal keeps its marks and its lines the same way: {@code io.leasehold.adapters.mark} (the mark
 * store on files) and {@code io.leasehold.adapters.file.internal} (durable file steps, state-file
 * checks, the cross-process lock).
 */
module io.leasehold.adapters.file {
  requires transitive io.leasehold.fencing;

  exports io.leasehold.adapters;
  exports io.leasehold.adapters.file;
  exports io.leasehold.adapters.mark to
      io.leasehold.adapters;
  exports io.leasehold.adapters.file.internal to
      io.leasehold.adapters;
}
