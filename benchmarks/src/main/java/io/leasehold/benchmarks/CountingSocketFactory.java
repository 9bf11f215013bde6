package io.leasehold.benchmarks;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.LongAdder;
import javax.net.SocketFactory;

/**
 * A socket factory for the PostgreSQL driver ({@code socketFactory=} in the JDBC URL) that counts
 * the driver's flushes of its socket: the driver buffers a request's messages and flushes once
 * before it waits for the server's answer, so the count is the round trips made, whatever the
 * machine's load.
 */
public final class CountingSocketFactory extends SocketFactory {
  private static final LongAdder FLUSHES = new LongAdder();

  /** The driver makes its factory by reflection. */
  public CountingSocketFactory() {}

  /** Round trips made so far by every connection made through this factory. */
  static long roundTrips() {
    return FLUSHES.sum();
  }

  @Override
  public Socket createSocket() {
    return new CountingSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    throw new UnsupportedOperationException("the driver connects an unconnected socket");
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
    throw new UnsupportedOperationException("the driver connects an unconnected socket");
  }

  @Override
  public Socket createSocket(InetAddress host, int port) {
    throw new UnsupportedOperationException("the driver connects an unconnected socket");
  }

  @Override
  public Socket createSocket(
      InetAddress address, int port, InetAddress localAddress, int localPort) {
    throw new UnsupportedOperationException("the driver connects an unconnected socket");
  }

  /** A plain socket whose output counts flushes. */
  private static final class CountingSocket extends Socket {
    private OutputStream out;

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        out =
            new FilterOutputStream(super.getOutputStream()) {
              @Override
              public void write(byte[] b, int off, int len) throws IOException {
                this.out.write(b, off, len);
              }

              @Override
              public void flush() throws IOException {
                FLUSHES.increment();
                this.out.flush();
              }
            };
      }
      return out;
    }
  }
}
