/** Jackson 2.x support for fencing tokens; needs {@code jackson-databind} on the class path. */
package io.leasehold.fencing.json;
