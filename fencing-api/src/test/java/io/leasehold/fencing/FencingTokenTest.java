package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FencingTokenTest {
  private static final UUID RUN = UUID.fromString("2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1");

  @Test
  void textFormIsDocumentedShape() {
    FencingToken token = new FencingToken(LeaseKey.of("acct-7", "chat-1"), 42, RUN);
    assertThat(token.toText())
        .isEqualTo("lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x");
  }

  @Test
  void textFormRoundTripsAnyKey() {
    FencingToken token =
        new FencingToken(LeaseKey.of("Zoë / ünïcode.with.dots", "séance:1 2"), Long.MAX_VALUE, RUN);
    assertThat(FencingToken.parse(token.toText())).isEqualTo(token);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "lh1",
        "lh3.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh1.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.042.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.+42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.0.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.-1.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.99999999999999999999.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x",
        "lh2.42.2F1E0C52-8E0B-4C1E-9D4E-55C3F0A2B7A1.YWNjdC03.Y2hhdC0x",
        "lh2.42.1-1-1-1-1.YWNjdC03.Y2hhdC0x",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03=.Y2hhdC0x",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC0*.Y2hhdC0x",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1..Y2hhdC0x",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x.extra",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x ",
        // account id "   " (blank) and "\u0001" (control character) are not valid keys
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.ICAg.Y2hhdC0x",
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.AQ.Y2hhdC0x",
        // 0xFF is not UTF-8
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1._w.Y2hhdC0x",
        // "YWM" is "ac"; "YWN" decodes to the same bytes with non-zero trailing bits
        "lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWN.Y2hhdC0y"
      })
  void malformedTextIsRejected(String text) {
    assertThatThrownBy(() -> FencingToken.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed fencing token");
  }

  @Test
  void nullAndHugeTextAreRejected() {
    assertThatThrownBy(() -> FencingToken.parse(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencingToken.parse("lh2." + "1".repeat(2000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("longer than");
  }

  @Test
  void componentsAreValidated() {
    LeaseKey key = LeaseKey.of("a", "s");
    assertThatThrownBy(() -> new FencingToken(key, 0, RUN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fence must be positive");
    assertThatThrownBy(() -> new FencingToken(null, 1, RUN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new FencingToken(key, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void headerTransportParsesTrimmedValue() {
    FencingToken token = new FencingToken(LeaseKey.of("a", "s"), 7, RUN);
    assertThat(TokenTransport.fromHeader("  " + token.toText() + "\t")).isEqualTo(token);
    assertThatThrownBy(() -> TokenTransport.fromHeader(null))
        .hasMessageContaining(TokenTransport.HTTP_HEADER);
  }
}
