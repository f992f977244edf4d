// Mails as auth systems send them, written after their stock templates (django-allauth, Devise, Laravel / Fortify,
// Auth0, Clerk, Supabase, Firebase, Keycloak), with the code or link each carries and the numbers around it a
// reader must not take for a code. test/unit/mail-code.test.ts reads them as a wait_for_email step does.

export interface AuthMail {
  name: string;
  text: string;
  html: string;
  /** The one-time code a person would type, or undefined when the mail has none. */
  code?: string;
  /** The link a person would open, when the mail is a link mail. */
  link?: string;
}

const footer =
  'Acme Inc., 500 Market Street, Suite 400, San Francisco, CA 94105\n© 2024 Acme Inc. All rights reserved.';

export const authMails: AuthMail[] = [
  {
    name: 'django-allauth: sign-in by code',
    text: 'Hello from Acme!\n\nYour sign-in code is listed below. Please enter it in your open browser window.\n\nCNSV-HCXK\n\nThis mail can be safely ignored if you did not initiate this action.\n\nThank you for using Acme!\nacme.example',
    html: '<html><body><p>Hello from Acme!</p><p>Your sign-in code is listed below. Please enter it in your open browser window.</p><p style="font-size:24px"><strong>CNSV-HCXK</strong></p><p>This mail can be safely ignored if you did not initiate this action.</p><p>Thank you for using Acme!<br>acme.example</p></body></html>',
    code: 'CNSV-HCXK',
  },
  {
    name: 'django-allauth: sign-up, email verification by code',
    text: "Hello from Acme!\n\nYour email verification code is listed below. Please enter it in your open browser window.\n\nK7PX-3MQR\n\nYou're receiving this mail because user jane has used it to register an account.\n\nThank you for using Acme!\nacme.example",
    html: '',
    code: 'K7PX-3MQR',
  },
  {
    name: 'Devise: confirmation instructions (HTML only)',
    text: '',
    html: '<p>Welcome jane@example.com!</p>\n<p>You can confirm your account email through the link below:</p>\n<p><a href="http://localhost:3000/users/confirmation?confirmation_token=zP4sWq8yHn2JkX9vLmA3">Confirm my account</a></p>',
    link: 'http://localhost:3000/users/confirmation?confirmation_token=zP4sWq8yHn2JkX9vLmA3',
  },
  {
    name: 'Devise: reset password instructions',
    text: '',
    html: '<p>Hello jane@example.com!</p>\n<p>Someone has requested a link to change your password. You can do this through the link below.</p>\n<p><a href="http://localhost:3000/users/password/edit?reset_password_token=Yt6bQ2rNc8vLp4ZkX1sW">Change my password</a></p>\n<p>If you didn\'t request this, please ignore this email.</p>\n<p>Your password won\'t change until you access the link above and create a new one.</p>',
    link: 'http://localhost:3000/users/password/edit?reset_password_token=Yt6bQ2rNc8vLp4ZkX1sW',
  },
  {
    name: 'Laravel: verify email address (markdown mail)',
    text: '[Laravel](http://localhost)\n\n# Hello!\n\nPlease click the button below to verify your email address.\n\nVerify Email Address: http://localhost/email/verify/42/3f1c9a7e5b2d4c6e8f0a1b3c5d7e9f1a2b3c4d5e?expires=1732712345&signature=9b8f7e6d5c4b3a29180716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b\n\nIf you did not create an account, no further action is required.\n\nRegards,\nLaravel\n\nIf you\'re having trouble clicking the "Verify Email Address" button, copy and paste the URL below\ninto your web browser: [http://localhost/email/verify/42/3f1c9a7e5b2d4c6e8f0a1b3c5d7e9f1a2b3c4d5e?expires=1732712345&signature=9b8f7e6d5c4b3a29180716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b](http://localhost/email/verify/42/3f1c9a7e5b2d4c6e8f0a1b3c5d7e9f1a2b3c4d5e?expires=1732712345&signature=9b8f7e6d5c4b3a29180716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b)\n\n© 2024 Laravel. All rights reserved.',
    html: '<table class="wrapper"><tr><td class="header"><a href="http://localhost" style="display: inline-block;">Laravel</a></td></tr><tr><td class="body"><h1>Hello!</h1><p>Please click the button below to verify your email address.</p><table class="action"><tr><td><a href="http://localhost/email/verify/42/3f1c9a7e5b2d4c6e8f0a1b3c5d7e9f1a2b3c4d5e?expires=1732712345&amp;signature=9b8f7e6d5c4b3a29180716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b" class="button button-primary" target="_blank" rel="noopener">Verify Email Address</a></td></tr></table><p>If you did not create an account, no further action is required.</p><p>Regards,<br>Laravel</p></td></tr><tr><td class="footer"><p>© 2024 Laravel. All rights reserved.</p></td></tr></table>',
    link: 'http://localhost/email/verify/42/3f1c9a7e5b2d4c6e8f0a1b3c5d7e9f1a2b3c4d5e?expires=1732712345&signature=9b8f7e6d5c4b3a29180716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b',
  },
  {
    name: 'Laravel Fortify: reset password notification',
    text: 'Hello!\n\nYou are receiving this email because we received a password reset request for your account.\n\nReset Password: http://localhost/reset-password/8c1f0e5a9d7b3c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b3c5d7e9f2a4b6c8d0e?email=jane%40example.com\n\nThis password reset link will expire in 60 minutes.\n\nIf you did not request a password reset, no further action is required.\n\nRegards,\nLaravel',
    html: '',
    link: 'http://localhost/reset-password/8c1f0e5a9d7b3c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b3c5d7e9f2a4b6c8d0e?email=jane%40example.com',
  },
  {
    name: 'Auth0: passwordless verification code',
    text: `Welcome to Acme!\n\nYour verification code is: 583920\n\nThis code will expire in five minutes.\n\nIf you are having any issues with your account, please don't hesitate to contact us by replying to this mail.\n\nThanks!\n\n${footer}`,
    html: `<table><tr><td><img src="https://cdn.auth0.com/styleguide/1.0.0/img/badge.png" width="50"></td></tr><tr><td><h1>Welcome to Acme!</h1><p>Your verification code is:</p><p><span style="font-size:24px;font-weight:bold" class="code">583920</span></p><p>This code will expire in five minutes.</p><p>Thanks!</p></td></tr><tr><td><p>${footer}</p></td></tr></table>`,
    code: '583920',
  },
  {
    name: 'Clerk: verification code on its own line',
    text: "Verification code\n\nEnter the following verification code when prompted:\n\n482913\n\nTo protect your account, do not share this code.\n\nDidn't request this?\nThis code was requested from 203.0.113.7 at 17:12 UTC on 27 November 2026. If you didn't make this request, you can safely ignore this email.",
    html: '<div><h2>Verification code</h2><p>Enter the following verification code when prompted:</p><p style="font-size:32px;letter-spacing:4px"><strong>482913</strong></p><p>To protect your account, do not share this code.</p><p><strong>Didn\'t request this?</strong><br>This code was requested from 203.0.113.7 at 17:12 UTC on 27 November 2026.</p></div>',
    code: '482913',
  },
  {
    name: 'Supabase: magic link with the OTP token',
    text: '',
    html: '<h2>Magic Link</h2>\n<p>Follow this link to login:</p>\n<p><a href="https://xyzcompany.supabase.co/auth/v1/verify?token=pkce_3f9a0c1d2b4e5f60718293a4b5c6d7e8&amp;type=magiclink&amp;redirect_to=http://localhost:3000">Log In</a></p>\n<p>Alternatively, enter the code: 847201</p>',
    code: '847201',
    link: 'https://xyzcompany.supabase.co/auth/v1/verify?token=pkce_3f9a0c1d2b4e5f60718293a4b5c6d7e8&type=magiclink&redirect_to=http://localhost:3000',
  },
  {
    name: 'Supabase: confirm sign-up (link only)',
    text: '',
    html: '<h2>Confirm your signup</h2>\n<p>Follow this link to confirm your user:</p>\n<p><a href="https://xyzcompany.supabase.co/auth/v1/verify?token=5f2b9c41e8a7d3061b9e4c2a7f80d5e3&amp;type=signup&amp;redirect_to=http://localhost:3000">Confirm your mail</a></p>',
    link: 'https://xyzcompany.supabase.co/auth/v1/verify?token=5f2b9c41e8a7d3061b9e4c2a7f80d5e3&type=signup&redirect_to=http://localhost:3000',
  },
  {
    name: 'Firebase: email link sign-in (oobCode)',
    text: 'Hello,\n\nWe received a request to sign in to Acme using this email address. If you want to sign in with your jane@example.com account, click this link:\n\nhttps://acme-prod.firebaseapp.com/__/auth/action?apiKey=AIzaSyD4x8Q2bN7c1TfL0pWm3RkZ9vH6yJ5sE2o&mode=signIn&oobCode=Xk3LmP9qRt2VwZ8nB4cD6fH1jK0sA7gE5uY&continueUrl=https://acme.example/finish&lang=en\n\nIf you did not request this link, you can safely ignore this email.\n\nThanks,\n\nYour Acme team',
    html: '<p>Hello,</p><p>We received a request to sign in to Acme using this email address. If you want to sign in with your jane@example.com account, click this link:</p><p><a href="https://acme-prod.firebaseapp.com/__/auth/action?apiKey=AIzaSyD4x8Q2bN7c1TfL0pWm3RkZ9vH6yJ5sE2o&amp;mode=signIn&amp;oobCode=Xk3LmP9qRt2VwZ8nB4cD6fH1jK0sA7gE5uY&amp;continueUrl=https://acme.example/finish&amp;lang=en">Sign in to Acme</a></p><p>If you did not request this link, you can safely ignore this email.</p><p>Thanks,</p><p>Your Acme team</p>',
    link: 'https://acme-prod.firebaseapp.com/__/auth/action?apiKey=AIzaSyD4x8Q2bN7c1TfL0pWm3RkZ9vH6yJ5sE2o&mode=signIn&oobCode=Xk3LmP9qRt2VwZ8nB4cD6fH1jK0sA7gE5uY&continueUrl=https://acme.example/finish&lang=en',
  },
  {
    name: 'Keycloak: verify email',
    text: "Someone has created a Acme account with this email address. If this was you, click the link below to verify your email address\n\nhttp://localhost:8080/realms/acme/login-actions/action-token?key=eyJhbGciOiJIUzUxMiIsInR5cCIgOiAiSldUIiwia2lkIiA6ICI4ZjE2&client_id=account-console&tab_id=Qw3rTy9uIo\n\nThis link will expire within 5 minutes.\n\nIf you didn't create this account, just ignore this message.",
    html: '<html><body><p>Someone has created a Acme account with this email address. If this was you, click the link below to verify your email address</p><p><a href="http://localhost:8080/realms/acme/login-actions/action-token?key=eyJhbGciOiJIUzUxMiIsInR5cCIgOiAiSldUIiwia2lkIiA6ICI4ZjE2&amp;client_id=account-console&amp;tab_id=Qw3rTy9uIo" rel="nofollow">Link to e-mail address verification</a></p><p>This link will expire within 5 minutes.</p></body></html>',
    link: 'http://localhost:8080/realms/acme/login-actions/action-token?key=eyJhbGciOiJIUzUxMiIsInR5cCIgOiAiSldUIiwia2lkIiA6ICI4ZjE2&client_id=account-console&tab_id=Qw3rTy9uIo',
  },
  {
    name: 'Keycloak: email OTP, spaced groups',
    text: 'Your access code is 583 102\n\nThis code will expire within 5 minutes.\n\nIf you did not request it, contact support on +49 30 1234 5678.',
    html: '<p>Your access code is <b>583 102</b></p><p>This code will expire within 5 minutes.</p>',
    code: '583 102',
  },
  {
    name: 'a mixed code after "one-time code", an order number before it',
    text: 'Order 12345, total $1,999.00.\nYour one-time code: AB12CD\nQuestions? Call 555-123-4567.',
    html: '',
    code: 'AB12CD',
  },
  {
    name: 'a mixed 8-character login code with a dashed digits phone and a ticket id',
    text: 'Hi Jane,\n\nUse this login code to finish signing in:\n\nQ7KM42ZX\n\nNeed help? Reply to ticket #88231 or call 0800-123-456.\n\nThe Acme Team',
    html: '',
    code: 'Q7KM42ZX',
  },
  {
    name: 'a code in dashed digit groups, under a receipt header',
    text: 'Receipt 2024-11-27\nInvoice no. 100482\n\nYour security code is 123-456. Never share it.',
    html: '',
    code: '123-456',
  },
  {
    name: 'a Clerk-style subject line repeated in the body: "code first"',
    text: '715204 is your verification code\n\nIt expires in 10 minutes. Order 998877 shipped yesterday.',
    html: '',
    code: '715204',
  },
];

/** Mails with no code: the right answer is none, whatever numbers and words they carry. */
export const codelessMails: AuthMail[] = [
  {
    name: 'an order confirmation',
    text: `Thanks for your order!\n\nOrder number: 100482\nPlaced on 12 May 2024 at 10:30\nTotal: $59.99 (incl. 20% VAT)\n\nQuestions? Call 0800 123 456 or +1 (555) 123-4567.\n\nThanks,\nJane Smith\nAcme\n\n${footer}`,
    html: '',
  },
  {
    name: 'a support ticket receipt',
    text: 'Hello\n\nWe received your request (ticket 88231). Ticket ID: 88231\nOur team will reply within 24 hours.\n\nCase #55102\n\nBest regards,\nACME SUPPORT',
    html: '',
  },
  {
    name: 'a newsletter',
    text: 'Hello Jane,\n\nWHATS NEW\n\nAcme 2024.11 is out, 30% faster, from $9 per month. Join our webinar on 2024-12-05 at 16:00.\n\nVersion 3.2.1\nUnsubscribe: https://acme.example/unsubscribe?u=4f9a2c71b3d8e605\n\nCheers,\nThe Acme Team',
    html: '',
  },
  {
    name: 'a shipping notice',
    text: 'Your parcel is on its way.\n\nTracking number: 1Z999AA10123456784\nEstimated delivery: 29/11/2026\nWeight 2.5 kg\n\nThanks,\nAcme Logistics',
    html: '',
  },
];
