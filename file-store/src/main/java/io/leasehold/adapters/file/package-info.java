/** A directory of files that admits writes only from the newest run of each session. */
package io.leasehold.adapters.file;
