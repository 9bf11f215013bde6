/** Jackson 2.x support for fencing tokens (the {@code leasehold-fencing-json} artifact). */
package io.leasehold.fencing.json;
