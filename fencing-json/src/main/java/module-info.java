/**
 * Fencing tokens in Jackson 2 JSON: {@link io.leasehold.fencing.json.FencingJsonModule}. Apart from
 * the fencing API so that the API needs only the JDK.
 */
module io.leasehold.fencing.json {
  requires transitive io.leasehold.fencing;
  requires transitive com.fasterxml.jackson.databind;

  exports io.leasehold.fencing.json;
}
