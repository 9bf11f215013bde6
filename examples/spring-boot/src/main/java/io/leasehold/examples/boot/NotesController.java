package io.leasehold.examples.boot;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The fenced endpoint: {@code PUT /accounts/{account}/sessions/{session}/note} takes the session's
 * lease for one run, writes the note through the file store guard with that run's fence, and
 * releases. While another run holds the session the answer is 409 with the holder; a run that lost
 * its lease cannot write (the guard refuses its fence).
 */
@RestController
class NotesController {
  private final LeaseStore leases;
  private final FencedFileStore notes;

  NotesController(LeaseStore leases, FencedFileStore notes) {
    this.leases = leases;
    this.notes = notes;
  }

  // region fenced-endpoint
  @PutMapping("/accounts/{account}/sessions/{session}/note")
  ResponseEntity<String> write(
      @PathVariable String account,
      @PathVariable String session,
      @RequestHeader("X-Caller") String caller,
      @RequestBody String text) {
    AcquireResult result = leases.tryAcquire(LeaseKey.of(account, session), caller);
    return result.match(
        acquired -> {
          try (Lease lease = acquired) {
            notes.write(
                lease,
                account + "/" + session + "/note.txt",
                text.getBytes(StandardCharsets.UTF_8));
            return ResponseEntity.ok("written with fence " + lease.fence() + "\n");
          }
        },
        busy ->
            ResponseEntity.status(HttpStatus.CONFLICT)
                .body(
                    "session busy: "
                        + busy.owner().map(o -> "held by " + o.holder()).orElse("being taken")
                        + "\n"),
        tooLate ->
            ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body("the database answered too late; retry\n"));
  }

  // endregion

  @ExceptionHandler(AccessDeniedException.class)
  ResponseEntity<String> denied(AccessDeniedException e) {
    return ResponseEntity.status(HttpStatus.FORBIDDEN).body(e.getMessage() + "\n");
  }
}
