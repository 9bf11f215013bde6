package io.leasehold.fencing.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenSignature;
import java.io.IOException;
import java.util.UUID;

/**
 * Jackson support for {@link FencingToken}. Register it on an {@code ObjectMapper}:
 *
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper().registerModule(new FencingJsonModule());
 * }</pre>
 *
 * <p>The JSON shape is a flat object with exactly four members:
 *
 * <pre>{@code
 * {"accountId":"acct-7","sessionId":"chat-1","fence":42,"runId":"2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1"}
 * }</pre>
 *
 * <p>A signed token adds four members: {@code "validFrom"} and {@code "validUntil"} (integer Unix
 * milliseconds), {@code "keyId"} and {@code "signature"}, all four or none.
 *
 * <p>Reading is strict: a missing, duplicated or unknown member, a member of the wrong JSON type, a
 * non-integral or non-positive fence, or a non-canonical run id is an error, never a partial token,
 * and so is JSON {@code null} where a token is expected. Content after the token is something only
 * the mapper can refuse: for a document that is a token and nothing else, use {@link
 * #readToken(String)}, or enable {@code DeserializationFeature.FAIL_ON_TRAILING_TOKENS} on your
 * mapper. It is in the {@code leasehold-fencing-json} artifact, which brings {@code
 * jackson-databind} 2.x.
 */
public final class FencingJsonModule extends SimpleModule {
  private static final long serialVersionUID = 1L;

  private static final com.fasterxml.jackson.databind.ObjectReader STRICT =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .registerModule(new FencingJsonModule())
          .readerFor(FencingToken.class)
          .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** Creates the module. */
  public FencingJsonModule() {
    super("leasehold-fencing", Version.unknownVersion());
    addSerializer(FencingToken.class, new TokenSerializer());
    addDeserializer(FencingToken.class, new TokenDeserializer());
  }

  /**
   * Reads a JSON document that is one token and nothing else: {@code null}, trailing content or
   * anything malformed is refused.
   *
   * @param json the document
   * @return the token
   * @throws IllegalArgumentException if the document is not exactly one well-formed token
   */
  public static FencingToken readToken(String json) {
    if (json == null) {
      throw new IllegalArgumentException("token JSON must not be null");
    }
    try {
      FencingToken token = STRICT.readValue(json);
      if (token == null) {
        throw new IllegalArgumentException("malformed fencing token JSON: null");
      }
      return token;
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed fencing token JSON: " + e.getMessage(), e);
    }
  }

  private static final class TokenSerializer extends JsonSerializer<FencingToken> {
    @Override
    public void serialize(FencingToken token, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeStartObject();
      gen.writeStringField("accountId", token.key().accountId());
      gen.writeStringField("sessionId", token.key().sessionId());
      gen.writeNumberField("fence", token.fence());
      gen.writeStringField("runId", token.runId().toString());
      if (token.signature().isPresent()) {
        gen.writeNumberField("validFrom", token.signature().get().validFrom().toEpochMilli());
        gen.writeNumberField("validUntil", token.signature().get().validUntil().toEpochMilli());
        gen.writeStringField("keyId", token.signature().get().keyId());
        gen.writeStringField("signature", token.signature().get().value());
      }
      gen.writeEndObject();
    }
  }

  private static final class TokenDeserializer extends JsonDeserializer<FencingToken> {
    /** JSON null where a token is expected is an error, never a null token. */
    @Override
    public FencingToken getNullValue(DeserializationContext ctxt)
        throws com.fasterxml.jackson.databind.JsonMappingException {
      throw com.fasterxml.jackson.databind.exc.MismatchedInputException.from(
          ctxt.getParser(), FencingToken.class, "a fencing token must not be null");
    }

    @Override
    public FencingToken deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.START_OBJECT) {
        return (FencingToken) ctxt.handleUnexpectedToken(FencingToken.class, p);
      }
      String accountId = null;
      String sessionId = null;
      Long fence = null;
      String runId = null;
      String keyId = null;
      String signature = null;
      Long validFrom = null;
      Long validUntil = null;
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "accountId" -> accountId = text(p, ctxt, name, value, accountId);
          case "sessionId" -> sessionId = text(p, ctxt, name, value, sessionId);
          case "runId" -> runId = text(p, ctxt, name, value, runId);
          case "keyId" -> keyId = text(p, ctxt, name, value, keyId);
          case "signature" -> signature = text(p, ctxt, name, value, signature);
          case "fence" -> fence = integer(p, ctxt, name, value, fence);
          case "validFrom" -> validFrom = integer(p, ctxt, name, value, validFrom);
          case "validUntil" -> validUntil = integer(p, ctxt, name, value, validUntil);
          default -> throw ctxt.weirdStringException(name, FencingToken.class, "unknown member");
        }
      }
      if (accountId == null || sessionId == null || fence == null || runId == null) {
        throw ctxt.instantiationException(
            FencingToken.class, "a fencing token needs accountId, sessionId, fence and runId");
      }
      int signedParts =
          (keyId == null ? 0 : 1)
              + (signature == null ? 0 : 1)
              + (validFrom == null ? 0 : 1)
              + (validUntil == null ? 0 : 1);
      if (signedParts != 0 && signedParts != 4) {
        throw ctxt.instantiationException(
            FencingToken.class,
            "a signed fencing token needs all of validFrom, validUntil, keyId and signature");
      }
      try {
        UUID id = UUID.fromString(runId);
        if (!id.toString().equals(runId)) {
          throw new IllegalArgumentException("run id is not a canonical lower-case UUID");
        }
        FencingToken token = new FencingToken(new LeaseKey(accountId, sessionId), fence, id);
        return keyId == null
            ? token
            : token.withSignature(
                new TokenSignature(
                    keyId,
                    java.time.Instant.ofEpochMilli(validFrom),
                    java.time.Instant.ofEpochMilli(validUntil),
                    signature));
      } catch (IllegalArgumentException e) {
        throw ctxt.instantiationException(FencingToken.class, e.getMessage());
      }
    }

    private static Long integer(
        JsonParser p, DeserializationContext ctxt, String name, JsonToken value, Long previous)
        throws IOException {
      expect(p, ctxt, name, value, previous, JsonToken.VALUE_NUMBER_INT, "an integer");
      if (p.getNumberType() != JsonParser.NumberType.INT
          && p.getNumberType() != JsonParser.NumberType.LONG) {
        throw ctxt.weirdNumberException(
            p.getNumberValue(), FencingToken.class, name + " is out of range");
      }
      return p.getLongValue();
    }

    private static String text(
        JsonParser p, DeserializationContext ctxt, String name, JsonToken value, String previous)
        throws IOException {
      expect(p, ctxt, name, value, previous, JsonToken.VALUE_STRING, "a string");
      return p.getText();
    }

    /** Refuses a member seen before, and a value of another JSON type than {@code expected}. */
    private static void expect(
        JsonParser p,
        DeserializationContext ctxt,
        String name,
        JsonToken value,
        Object previous,
        JsonToken expected,
        String what)
        throws IOException {
      if (previous != null) {
        throw ctxt.weirdStringException(name, FencingToken.class, "duplicate member");
      }
      if (value != expected) {
        throw ctxt.wrongTokenException(p, FencingToken.class, expected, name + " must be " + what);
      }
    }
  }
}
